$ sge_as_user qsub -h -P pj -b y /bin/sleep 60
