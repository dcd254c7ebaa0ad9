$ qsub -h -b y -l =5 /bin/true
