$ qstat -j 19
