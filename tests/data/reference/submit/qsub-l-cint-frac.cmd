$ qsub -h -b y -l cint=1.5 /bin/true
