$ qstat -j 83
