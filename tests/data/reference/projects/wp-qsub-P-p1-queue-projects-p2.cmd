$ sge_as_user qsub -h -w p -P p1 -b y /bin/true
