$ qsub -h -b y -t 1-10:-1 /bin/true
