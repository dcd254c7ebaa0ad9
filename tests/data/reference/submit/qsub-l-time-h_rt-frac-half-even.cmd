$ qsub -h -b y -l h_rt=2.5 /bin/true
