$ sge_as_user qsub -h -ckpt nosuch -b y /bin/true
