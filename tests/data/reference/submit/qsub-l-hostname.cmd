$ qsub -h -b y -l hostname=vm /bin/true
