$ qstat -j 7
