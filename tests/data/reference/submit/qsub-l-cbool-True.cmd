$ qsub -h -b y -l cbool=True /bin/true
