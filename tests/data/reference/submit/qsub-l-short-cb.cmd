$ qsub -h -b y -l cb=true /bin/true
