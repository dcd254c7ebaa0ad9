$ sge_as_user qsub -h -P p1 -b y /bin/true
