$ qsub -h -b y -pe nonexistent 1 /bin/true
