$ qstat -j 72
