$ sge_as_user qsub -P p1 -b y /bin/sleep 60
