$ qstat -j 31
