$ qsub -h -b y -l cbool=true /bin/true
