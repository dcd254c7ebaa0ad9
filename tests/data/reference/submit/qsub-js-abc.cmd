$ qsub -h -b y -js abc /bin/true
