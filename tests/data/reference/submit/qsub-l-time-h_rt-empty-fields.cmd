$ qsub -h -b y -l h_rt=::5 /bin/true
