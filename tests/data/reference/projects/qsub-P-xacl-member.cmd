$ sge_as_user qsub -h -P pxacl -b y /bin/true
