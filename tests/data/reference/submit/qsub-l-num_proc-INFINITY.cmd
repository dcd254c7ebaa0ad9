$ qsub -h -b y -l num_proc=INFINITY /bin/true
