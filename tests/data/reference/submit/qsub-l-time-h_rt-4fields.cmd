$ qsub -h -b y -l h_rt=1:0:0:0 /bin/true
