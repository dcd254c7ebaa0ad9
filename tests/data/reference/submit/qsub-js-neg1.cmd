$ qsub -h -b y -js -1 /bin/true
