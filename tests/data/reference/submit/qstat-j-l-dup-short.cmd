$ qstat -j 93
