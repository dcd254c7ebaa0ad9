$ qstat -j 121
