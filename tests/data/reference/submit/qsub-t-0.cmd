$ qsub -h -b y -t 0 /bin/true
