$ qsub -h -b y -wd /nonexistent /bin/true
