qsub -now y -terse -b y /bin/true
