$ qstat -j 67
