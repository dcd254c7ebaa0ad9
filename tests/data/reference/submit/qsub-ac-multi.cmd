$ qsub -h -b y -ac a=b,c=d -ac e /bin/true
