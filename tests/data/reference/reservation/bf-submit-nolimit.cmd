qsub -terse -N nolimit -b y /bin/sleep 3000
