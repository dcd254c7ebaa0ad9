$ sge_as_user qsub -h -P '' -b y /bin/true
