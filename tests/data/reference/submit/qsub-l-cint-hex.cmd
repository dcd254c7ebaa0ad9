$ qsub -h -b y -l cint=0x10 /bin/true
