$ sge_as_user qsub -w p -b y /bin/sleep 60
