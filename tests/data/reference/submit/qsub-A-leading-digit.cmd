$ qsub -h -b y -A 1abc /bin/true
