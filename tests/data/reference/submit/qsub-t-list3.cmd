$ qsub -h -b y -t 1,2,5 /bin/true
