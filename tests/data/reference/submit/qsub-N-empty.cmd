$ qsub -h -b y -N '' /bin/true
