$ qsub -h -b y -l cint=abc /bin/true
