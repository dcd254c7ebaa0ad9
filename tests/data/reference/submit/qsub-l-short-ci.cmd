$ qsub -h -b y -l ci=3 /bin/true
