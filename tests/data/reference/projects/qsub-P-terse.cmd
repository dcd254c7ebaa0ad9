$ sge_as_user qsub -h -terse -P p1 -b y /bin/true
