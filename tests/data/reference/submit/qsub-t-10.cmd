$ qsub -h -b y -t 10 /bin/true
