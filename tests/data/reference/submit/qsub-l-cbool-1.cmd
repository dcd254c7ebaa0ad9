$ qsub -h -b y -l cbool=1 /bin/true
