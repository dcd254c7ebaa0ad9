$ sge_as_user qsub -P p3 -b y /bin/sleep 60
