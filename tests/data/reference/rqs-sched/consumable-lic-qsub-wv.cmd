$ sge_as_user qsub -w v -l lic=1 -b y /bin/sleep 60
