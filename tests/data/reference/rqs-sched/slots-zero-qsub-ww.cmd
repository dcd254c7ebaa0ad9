$ sge_as_user qsub -w w -b y /bin/sleep 60
