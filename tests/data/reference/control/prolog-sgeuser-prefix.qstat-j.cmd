$ qstat -j 50
