$ qsub -h -b y -js 100 /bin/true
