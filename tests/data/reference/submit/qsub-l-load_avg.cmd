$ qsub -h -b y -l load_avg=1 /bin/true
