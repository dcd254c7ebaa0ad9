$ qsub -h -b y -l cint=010 /bin/true
