$ qstat -j 25
