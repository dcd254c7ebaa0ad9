$ qsub -h -b y -l mem_free=2G /bin/true
