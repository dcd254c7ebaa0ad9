$ qsub -h -b y -l cbool= /bin/true
