$ qsub -h -b y -t 1-10 -tc 2 /bin/true
