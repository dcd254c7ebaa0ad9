$ qsub -h -b y -js 100000 /bin/true
