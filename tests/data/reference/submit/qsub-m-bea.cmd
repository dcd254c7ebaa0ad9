$ qsub -h -b y -m bea /bin/true
