$ qstat -j 108
