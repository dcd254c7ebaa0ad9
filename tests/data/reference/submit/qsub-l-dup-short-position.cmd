$ qsub -h -b y -l mf=1G,h_rt=100 -l mem_free=2G /bin/true
