$ qsub -h -b y -t 1,3 /bin/true
