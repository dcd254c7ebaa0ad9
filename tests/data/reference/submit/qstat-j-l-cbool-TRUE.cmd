$ qstat -j 12
