$ qsub -h -b y -l cbool=TRUE /bin/true
