$ qsub -h -b y -l cdbl=-1.5 /bin/true
