$ qstat -j 39
