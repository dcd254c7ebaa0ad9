$ qsub -h -b y -l h_rt=abc /bin/true
