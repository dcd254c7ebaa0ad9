$ qsub -h -b y -a 01010000 /bin/true
