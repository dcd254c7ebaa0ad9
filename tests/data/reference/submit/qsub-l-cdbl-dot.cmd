$ qsub -h -b y -l cdbl=.5 /bin/true
