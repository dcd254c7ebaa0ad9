$ qstat -j 292
