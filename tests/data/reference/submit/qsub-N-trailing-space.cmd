$ qsub -h -b y -N 'ab ' /bin/true
