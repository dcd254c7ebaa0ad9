$ qsub -h -b y -dl 202001010000 /bin/true
