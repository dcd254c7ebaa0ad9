$ qsub -h -b y -ac a=b /bin/true
