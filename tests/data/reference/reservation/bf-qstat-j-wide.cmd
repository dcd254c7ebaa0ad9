qstat -j 131
