$ qsub -h -b y -v =2 /bin/true
