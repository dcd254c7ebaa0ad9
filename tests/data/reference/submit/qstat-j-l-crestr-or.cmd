$ qstat -j 76
