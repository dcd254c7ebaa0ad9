$ sge_as_user qsub -w v -pe smp 4 -b y /bin/sleep 60
