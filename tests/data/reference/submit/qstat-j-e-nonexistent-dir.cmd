$ qstat -j 232
