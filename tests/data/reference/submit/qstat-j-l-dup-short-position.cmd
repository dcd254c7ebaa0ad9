$ qstat -j 100
