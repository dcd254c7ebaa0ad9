$ qsub -h -b y -l cdbl=INFINITY /bin/true
