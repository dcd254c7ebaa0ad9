$ qsub -h -b y -v A /bin/true
