$ qstat -j 296
