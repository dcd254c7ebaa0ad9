$ qsub -h -b y -N _abc /bin/true
