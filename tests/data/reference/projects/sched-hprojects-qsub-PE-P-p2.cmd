$ sge_as_user qsub -pe smp 2 -P p2 -b y /bin/sleep 60
