$ qsub -h -b y -a 13321212 /bin/true
