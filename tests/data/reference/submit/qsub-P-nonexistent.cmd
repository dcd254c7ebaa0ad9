$ qsub -h -b y -P nonexistent /bin/true
