$ qsub -h -b y -pe smp 0-0 /bin/true
