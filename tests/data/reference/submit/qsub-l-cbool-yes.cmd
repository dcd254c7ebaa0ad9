$ qsub -h -b y -l cbool=yes /bin/true
