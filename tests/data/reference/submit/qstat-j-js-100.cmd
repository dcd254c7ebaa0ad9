$ qstat -j 227
