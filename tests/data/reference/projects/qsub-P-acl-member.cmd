$ sge_as_user qsub -h -P pin -b y /bin/true
