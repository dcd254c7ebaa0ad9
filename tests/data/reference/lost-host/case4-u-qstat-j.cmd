qstat -j 320
