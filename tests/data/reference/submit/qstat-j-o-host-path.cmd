$ qstat -j 233
