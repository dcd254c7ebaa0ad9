$ qsub -h -b y -l arch /bin/true
