$ sge_as_user qsub -w e -P p2 -b y /bin/sleep 60
