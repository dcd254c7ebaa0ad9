$ qsub -h -b y -l cint /bin/true
