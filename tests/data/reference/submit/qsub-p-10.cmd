$ qsub -h -b y -p 10 /bin/true
