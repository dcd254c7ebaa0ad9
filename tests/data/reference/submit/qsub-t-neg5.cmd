$ qsub -h -b y -t -5 /bin/true
