$ sge_as_user qsub -h -P pacl -b y /bin/true
