$ qstat -j 248
