$ qsub -h -b y -l cdbl=1k /bin/true
