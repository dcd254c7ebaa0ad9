$ qsub -h -b y -j maybe /bin/true
