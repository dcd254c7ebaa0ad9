$ qsub -h -b y -t 5-1 /bin/true
