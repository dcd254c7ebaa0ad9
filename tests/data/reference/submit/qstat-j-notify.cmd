$ qstat -j 252
