$ qsub -h -b y -notify /bin/true
