$ qsub -h -b y -l nla=1 /bin/true
