$ qsub -h -b y -l h_rt=1.4 /bin/true
