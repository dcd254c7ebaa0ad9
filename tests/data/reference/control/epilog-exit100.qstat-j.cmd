$ qstat -j 48
