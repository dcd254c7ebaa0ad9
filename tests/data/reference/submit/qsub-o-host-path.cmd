$ qsub -h -b y -o vm:/tmp/x /bin/true
