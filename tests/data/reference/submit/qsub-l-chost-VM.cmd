$ qsub -h -b y -l chost=VM /bin/true
