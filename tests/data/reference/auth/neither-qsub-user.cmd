$ (on host localhost) qsub -b y /bin/true
