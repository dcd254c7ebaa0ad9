$ sge_as_user qsub -P p2 -b y /bin/sleep 60
