$ sge_as_user qsub -w v -b y /bin/sleep 60
