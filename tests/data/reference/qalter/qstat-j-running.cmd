$ qstat -j 37
