sgeuser$ qsub -ar 36 -b y /bin/sleep 5
