$ qstat -j 53
