$ qsub -h -b y -p -1024 /bin/true
