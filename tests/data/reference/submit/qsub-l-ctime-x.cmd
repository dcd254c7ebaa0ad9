$ qsub -h -b y -l ctime=x /bin/true
