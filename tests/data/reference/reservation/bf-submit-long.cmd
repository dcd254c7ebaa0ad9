qsub -terse -N long -b y -l h_rt=0:30:0 /bin/sleep 3000
