$ sge_as_user qsub -w e -P p1 -b y /bin/true
