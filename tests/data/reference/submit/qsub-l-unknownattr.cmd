$ qsub -h -b y -l unknownattr=1 /bin/true
