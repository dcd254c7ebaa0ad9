$ qsub -h -b y -l h_rt=-1 /bin/true
