$ qsub -h -b y -p -2000 /bin/true
