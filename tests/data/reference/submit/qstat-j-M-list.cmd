$ qstat -j 249
