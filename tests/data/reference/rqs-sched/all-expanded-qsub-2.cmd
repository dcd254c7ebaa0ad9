$ sge_as_user qsub -P p1 -pe smp 1 -b y /bin/sleep 60
