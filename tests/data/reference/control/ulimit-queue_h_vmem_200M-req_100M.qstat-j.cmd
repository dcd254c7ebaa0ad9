$ qstat -j 28
