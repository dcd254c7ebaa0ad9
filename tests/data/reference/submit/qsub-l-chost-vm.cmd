$ qsub -h -b y -l chost=vm /bin/true
