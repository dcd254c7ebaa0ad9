$ qstat -j 70
