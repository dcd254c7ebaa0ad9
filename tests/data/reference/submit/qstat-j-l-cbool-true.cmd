$ qstat -j 10
