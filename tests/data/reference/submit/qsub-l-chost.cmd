$ qsub -h -b y -l chost=somehost /bin/true
