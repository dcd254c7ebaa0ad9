$ qsub -h -b y -l cdbl=x /bin/true
