$ (on host localhost) qsub -h -b y /bin/true
