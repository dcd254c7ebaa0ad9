$ qsub -h -b y -t 1-10:0 /bin/true
