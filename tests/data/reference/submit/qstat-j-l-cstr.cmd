$ qstat -j 14
