$ qsub -h -b y -t 1-75000 /bin/true
