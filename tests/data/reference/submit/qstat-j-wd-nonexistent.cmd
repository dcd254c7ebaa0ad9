$ qstat -j 235
