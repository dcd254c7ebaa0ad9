$ qsub -h -b y -l cint=-1 /bin/true
