$ qsub -h -b y -l num_proc=-1 /bin/true
