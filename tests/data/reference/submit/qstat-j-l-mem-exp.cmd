$ qstat -j 45
