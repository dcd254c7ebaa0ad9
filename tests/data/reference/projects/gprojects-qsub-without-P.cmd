$ sge_as_user qsub -h -b y /bin/true
