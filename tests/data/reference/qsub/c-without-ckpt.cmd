qsub -c s -b y /bin/true
