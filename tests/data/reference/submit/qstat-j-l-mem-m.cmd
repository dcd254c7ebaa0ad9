$ qstat -j 38
