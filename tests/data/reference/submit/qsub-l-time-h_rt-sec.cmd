$ qsub -h -b y -l h_rt=90 /bin/true
