$ qstat -j 17
