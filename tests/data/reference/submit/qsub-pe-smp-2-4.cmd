$ qsub -h -b y -pe smp 2-4 /bin/true
