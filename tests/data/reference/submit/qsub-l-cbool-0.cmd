$ qsub -h -b y -l cbool=0 /bin/true
