$ sge_as_user qsub -b y /bin/sleep 60
