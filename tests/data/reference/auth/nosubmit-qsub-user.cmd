$ qsub -b y /bin/true
