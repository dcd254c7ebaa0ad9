$ qstat -j 230
