$ qsub -h -b y -l cmem=1.5G /bin/true
