$ qsub -h -b y -l cbool=false /bin/true
