qsub -b y -terse -N hrt -l h_rt=3 sleep 60; qacct -j 293
