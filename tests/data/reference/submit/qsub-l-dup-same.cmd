$ qsub -h -b y -l h_rt=100,h_rt=200 /bin/true
