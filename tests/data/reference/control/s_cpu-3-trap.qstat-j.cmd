$ qstat -j 2
