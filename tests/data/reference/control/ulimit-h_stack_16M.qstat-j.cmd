$ qstat -j 21
