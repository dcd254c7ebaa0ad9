$ qsub -h -b y -l hostname=somehost /bin/true
