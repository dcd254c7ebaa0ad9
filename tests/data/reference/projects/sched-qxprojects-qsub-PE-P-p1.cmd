$ sge_as_user qsub -pe smp 2 -P p1 -b y /bin/sleep 60
