$ qsub -h -b y -l mf=2G /bin/true
