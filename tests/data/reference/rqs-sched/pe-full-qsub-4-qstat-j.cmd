$ qstat -j 206
