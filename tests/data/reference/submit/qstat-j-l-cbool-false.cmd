$ qstat -j 13
