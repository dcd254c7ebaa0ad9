$ qsub -h -b y -pe smp /bin/true
