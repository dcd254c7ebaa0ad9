$ qsub -h -b y -l 'crestr=a|b' /bin/true
