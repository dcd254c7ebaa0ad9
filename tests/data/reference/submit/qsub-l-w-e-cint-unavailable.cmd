$ qsub -w e -h -b y -l cint=1 /bin/true
