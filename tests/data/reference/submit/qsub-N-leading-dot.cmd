$ qsub -h -b y -N .abc /bin/true
