$ qsub -h -b y -v '' /bin/true
