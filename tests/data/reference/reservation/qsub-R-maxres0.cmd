qsub -terse -N r0 -b y -R y /bin/sleep 3000
