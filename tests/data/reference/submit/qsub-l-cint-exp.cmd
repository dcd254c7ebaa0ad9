$ qsub -h -b y -l cint=1e2 /bin/true
