$ qsub -h -b y -q nonexistent /bin/true
