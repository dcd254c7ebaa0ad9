$ qsub -h -b y -l h_rt= /bin/true
