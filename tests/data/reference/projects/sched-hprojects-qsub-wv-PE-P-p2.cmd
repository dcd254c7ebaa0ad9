$ sge_as_user qsub -w v -pe smp 2 -P p2 -b y /bin/sleep 60
