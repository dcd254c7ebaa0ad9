$ qstat -j 58
