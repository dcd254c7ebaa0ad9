$ qsub -h -b y -l cint=3 /bin/true
