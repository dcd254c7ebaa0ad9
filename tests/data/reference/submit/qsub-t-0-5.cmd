$ qsub -h -b y -t 0-5 /bin/true
