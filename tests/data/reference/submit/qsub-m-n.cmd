$ qsub -h -b y -m n /bin/true
