$ qsub -h -b y -l cstr= /bin/true
