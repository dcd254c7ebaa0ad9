$ qstat -j 18
