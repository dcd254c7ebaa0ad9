$ qsub -h -b y -m x /bin/true
