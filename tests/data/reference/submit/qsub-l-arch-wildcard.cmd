$ qsub -h -b y -l 'arch=lx*' /bin/true
