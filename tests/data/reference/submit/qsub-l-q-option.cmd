$ qsub -h -b y -q all.q /bin/true
