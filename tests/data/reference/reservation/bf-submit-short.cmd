qsub -terse -N short -b y -l h_rt=0:1:0 /bin/sleep 3000
