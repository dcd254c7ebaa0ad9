$ qsub -h -b y -l cint=INFINITY /bin/true
