$ qsub -h -b y -a 202001010000 /bin/true
