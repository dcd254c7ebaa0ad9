$ qsub -h -b y -l h_rt=TRUE /bin/true
