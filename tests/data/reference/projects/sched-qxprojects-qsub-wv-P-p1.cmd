$ sge_as_user qsub -w v -P p1 -b y /bin/sleep 60
