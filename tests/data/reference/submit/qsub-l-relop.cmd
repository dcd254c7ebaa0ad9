$ qsub -h -b y -l 'h_rt<100' /bin/true
