$ qsub -h -b y -A '' /bin/true
