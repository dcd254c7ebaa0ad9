$ qsub -h -b y -l 'crestr=a*' /bin/true
