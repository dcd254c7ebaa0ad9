qstat -j 132
