qsub -now y -b y /bin/true
