$ qsub -h -b y -l h_rt=0 /bin/true
