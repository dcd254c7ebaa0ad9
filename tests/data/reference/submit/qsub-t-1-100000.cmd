$ qsub -h -b y -t 1-100000 /bin/true
