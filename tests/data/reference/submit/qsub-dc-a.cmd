$ qsub -h -b y -ac a=1,b=2 -dc a /bin/true
