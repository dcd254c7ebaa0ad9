$ sge_as_user qsub -h -w w -P p1 -b y /bin/true
