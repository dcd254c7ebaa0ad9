$ sge_as_user qsub -w e -l lic=1 -b y /bin/sleep 60
