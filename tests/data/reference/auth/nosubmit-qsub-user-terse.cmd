$ qsub -terse -b y /bin/true
