$ qsub -h -b y -pe smp 2 /bin/true
