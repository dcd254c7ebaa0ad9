$ qsub -h -b y -t abc /bin/true
