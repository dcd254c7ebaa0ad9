$ qsub -h -b y -a 203001010000.30 /bin/true
