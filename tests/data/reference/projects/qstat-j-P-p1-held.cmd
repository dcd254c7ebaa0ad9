$ qstat -j 94
