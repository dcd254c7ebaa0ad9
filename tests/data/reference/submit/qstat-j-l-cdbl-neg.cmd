$ qstat -j 55
