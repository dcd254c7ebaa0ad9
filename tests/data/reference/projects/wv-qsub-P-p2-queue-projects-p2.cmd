$ sge_as_user qsub -w v -P p2 -b y /bin/true
