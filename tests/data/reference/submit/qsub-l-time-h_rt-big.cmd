$ qsub -h -b y -l h_rt=100:0:0 /bin/true
