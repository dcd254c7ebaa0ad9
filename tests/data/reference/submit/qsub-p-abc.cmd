$ qsub -h -b y -p abc /bin/true
