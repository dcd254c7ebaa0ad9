$ qstat -j 35
