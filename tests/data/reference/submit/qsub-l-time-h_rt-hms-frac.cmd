$ qsub -h -b y -l h_rt=0:0:1.5 /bin/true
