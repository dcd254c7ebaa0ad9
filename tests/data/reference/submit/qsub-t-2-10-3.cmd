$ qsub -h -b y -t 2-10:3 /bin/true
