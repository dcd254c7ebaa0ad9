sgeuser$ qsub -ar 999 -b y /bin/sleep 5
