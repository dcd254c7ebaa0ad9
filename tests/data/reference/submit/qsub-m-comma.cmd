$ qsub -h -b y -m b,e /bin/true
