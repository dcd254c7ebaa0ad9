$ qsub -h -b y -tc 2 /bin/true
