$ qsub -h -b y -sc a=b /bin/true
