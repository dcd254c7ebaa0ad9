qsub -terse -N both2 -b y -l h_rt=0:2:0,s_rt=0:4:0 /bin/sleep 3000
