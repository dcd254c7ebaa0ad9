$ qsub -h -b y -l rt=100 /bin/true
