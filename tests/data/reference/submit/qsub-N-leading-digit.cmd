$ qsub -h -b y -N 1abc /bin/true
