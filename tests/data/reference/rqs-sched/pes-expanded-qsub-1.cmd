$ sge_as_user qsub -pe smp 1 -b y /bin/sleep 60
