$ qsub -h -b y -v A=1,B=x=y /bin/true
