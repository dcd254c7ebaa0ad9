$ qsub -h -b y -l cbool=2 /bin/true
