$ qsub -h -b y -pe smp abc /bin/true
