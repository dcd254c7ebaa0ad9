$ qsub -h -b y -l cbool=t /bin/true
