$ qsub -h -b y -l h_rt=0:90:90 /bin/true
