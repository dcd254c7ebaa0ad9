$ qsub -h -b y -t 1-10 -tc 0 /bin/true
