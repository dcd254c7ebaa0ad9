$ qsub -h -b y -l mem_free=1G,mf=2G /bin/true
