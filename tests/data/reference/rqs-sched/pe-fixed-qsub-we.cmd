$ sge_as_user qsub -w e -pe smp 4 -b y /bin/sleep 60
