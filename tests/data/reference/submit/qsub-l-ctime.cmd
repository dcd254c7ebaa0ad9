$ qsub -h -b y -l ctime=1:0:0 /bin/true
