$ qsub -h -b y -t 1-10 -tc abc /bin/true
