$ qstat -j 239
