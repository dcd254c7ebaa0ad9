$ qstat -j 43
