$ qsub -h -b y -a abc /bin/true
