$ qsub -h -b y -l '' /bin/true
