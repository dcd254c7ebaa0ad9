qsub -ckpt foo -b y /bin/true
