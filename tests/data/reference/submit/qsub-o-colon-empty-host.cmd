$ qsub -h -b y -o :/tmp/x /bin/true
