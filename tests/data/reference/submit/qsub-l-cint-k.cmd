$ qsub -h -b y -l cint=1k /bin/true
