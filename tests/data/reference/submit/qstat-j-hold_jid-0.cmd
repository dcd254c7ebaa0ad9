$ qstat -j 214
