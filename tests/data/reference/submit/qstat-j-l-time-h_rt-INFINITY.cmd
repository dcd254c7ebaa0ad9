$ qstat -j 29
