$ qsub -h -b y -l cstr=NONE /bin/true
