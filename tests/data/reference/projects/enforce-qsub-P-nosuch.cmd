$ sge_as_user qsub -h -P nosuch -b y /bin/true
