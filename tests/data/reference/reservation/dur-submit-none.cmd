qsub -terse -N nolim -b y /bin/sleep 3000
