qstat -j 315
