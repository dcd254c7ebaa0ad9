$ qsub -h -b y -l cdbl=1.50 /bin/true
