$ qsub -h -b y -l h_rt=0x10 /bin/true
