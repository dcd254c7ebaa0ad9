$ qsub -h -b y -pe smp 1,4 /bin/true
