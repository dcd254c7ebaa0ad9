sgeuser$ qsub -ar 37 -b y -N arjob /bin/sleep 300
