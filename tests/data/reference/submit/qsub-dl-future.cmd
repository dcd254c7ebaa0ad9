$ qsub -h -b y -dl 203001010000 /bin/true
