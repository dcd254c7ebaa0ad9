$ qstat -j 251
