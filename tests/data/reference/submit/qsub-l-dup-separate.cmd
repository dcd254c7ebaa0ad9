$ qsub -h -b y -l h_rt=100 -l h_rt=200 /bin/true
