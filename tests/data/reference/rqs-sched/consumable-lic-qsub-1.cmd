$ sge_as_user qsub -l lic=1 -b y /bin/sleep 60
