$ qstat -j 222
