$ qsub -h -b y -l cbool=maybe /bin/true
