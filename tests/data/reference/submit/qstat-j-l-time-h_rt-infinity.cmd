$ qstat -j 30
