$ qstat -j 6
