$ qstat -j 15
