$ qstat -j 71
