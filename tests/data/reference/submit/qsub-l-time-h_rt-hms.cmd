$ qsub -h -b y -l h_rt=1:2:3 /bin/true
