$ sge_as_user qsub -h -c s -b y /bin/true
