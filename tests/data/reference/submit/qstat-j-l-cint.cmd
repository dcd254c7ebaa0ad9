$ qstat -j 5
