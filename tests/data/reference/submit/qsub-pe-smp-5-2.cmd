$ qsub -h -b y -pe smp 5-2 /bin/true
