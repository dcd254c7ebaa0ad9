$ qsub -h -b y -l cmem=x /bin/true
