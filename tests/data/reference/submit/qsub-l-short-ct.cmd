$ qsub -h -b y -l ct=1:0:0 /bin/true
