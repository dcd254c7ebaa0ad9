$ qsub -h -b y -l H_RT=100 /bin/true
