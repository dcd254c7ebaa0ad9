$ sge_as_user qsub -w e -b y /bin/sleep 60
