$ qsub -h -b y -q all.q@nonexistenthost /bin/true
