$ qsub -h -b y -l h_rt=INFINITY /bin/true
