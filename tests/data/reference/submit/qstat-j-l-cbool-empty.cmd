$ qstat -j 119
