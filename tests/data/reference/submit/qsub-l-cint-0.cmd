$ qsub -h -b y -l cint=0 /bin/true
