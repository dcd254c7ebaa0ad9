$ qsub -h -b y -l cdbl=2e3 /bin/true
