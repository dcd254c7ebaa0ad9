$ qsub -h -b y -dl 13321212 /bin/true
