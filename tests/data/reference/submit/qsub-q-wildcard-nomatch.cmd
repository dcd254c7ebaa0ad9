$ qsub -h -b y -q 'nonexist*' /bin/true
