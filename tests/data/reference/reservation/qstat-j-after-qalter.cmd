qstat -j 135
