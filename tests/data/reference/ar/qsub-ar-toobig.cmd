sgeuser$ qsub -ar 37 -pe smp 2 -b y /bin/sleep 5
