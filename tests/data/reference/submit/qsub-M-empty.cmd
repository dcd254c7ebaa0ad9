$ qsub -h -b y -M '' /bin/true
