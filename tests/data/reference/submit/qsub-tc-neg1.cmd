$ qsub -h -b y -t 1-10 -tc -1 /bin/true
