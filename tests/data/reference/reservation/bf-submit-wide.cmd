qsub -terse -N wide -b y -pe smp 4 -R y -l h_rt=0:5:0 /bin/sleep 3000
