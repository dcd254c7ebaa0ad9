qsub -terse -b y -R maybe /bin/true
