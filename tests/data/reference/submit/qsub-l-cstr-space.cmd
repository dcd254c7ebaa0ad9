$ qsub -h -b y -l 'cstr=a b' /bin/true
