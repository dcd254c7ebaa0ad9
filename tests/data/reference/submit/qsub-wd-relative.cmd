$ qsub -h -b y -wd relative/dir /bin/true
