$ qsub -h -b y -N 123 /bin/true
