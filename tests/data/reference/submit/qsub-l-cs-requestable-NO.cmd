$ qsub -h -b y -l cs=AbC /bin/true
