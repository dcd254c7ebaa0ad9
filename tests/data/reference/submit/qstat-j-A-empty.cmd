$ qstat -j 223
