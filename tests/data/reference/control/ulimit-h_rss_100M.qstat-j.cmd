$ qstat -j 23
