$ sge_as_user qsub -h -P p2 -b y /bin/true
