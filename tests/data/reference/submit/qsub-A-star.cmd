$ qsub -h -b y -A 'a*b' /bin/true
