qstat -j 133
