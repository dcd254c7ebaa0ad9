$ qsub -h -b y -l hostname=VM /bin/true
