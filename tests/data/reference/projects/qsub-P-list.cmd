$ sge_as_user qsub -h -P p1,p2 -b y /bin/true
