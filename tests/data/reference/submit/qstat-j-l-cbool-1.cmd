$ qstat -j 11
