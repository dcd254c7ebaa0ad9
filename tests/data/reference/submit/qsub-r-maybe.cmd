$ qsub -h -b y -r maybe /bin/true
