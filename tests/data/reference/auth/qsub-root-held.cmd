$ (as root) qsub -h -N rootjob -b y /bin/true
