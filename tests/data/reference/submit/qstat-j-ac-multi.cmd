$ qstat -j 241
