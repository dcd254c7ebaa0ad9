$ qsub -h -b y -l h_rt=infinity /bin/true
