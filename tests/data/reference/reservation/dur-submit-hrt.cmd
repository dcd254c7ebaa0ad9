qsub -terse -N hrt -b y -l h_rt=0:5:0 /bin/sleep 3000
