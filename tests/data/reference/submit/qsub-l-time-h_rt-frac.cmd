$ qsub -h -b y -l h_rt=1.5 /bin/true
