$ sge_as_user qsub -pe smp 2 -b y /bin/sleep 60
