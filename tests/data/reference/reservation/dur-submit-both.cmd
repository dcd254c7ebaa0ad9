qsub -terse -N both -b y -l h_rt=0:5:0,s_rt=0:3:0 /bin/sleep 3000
