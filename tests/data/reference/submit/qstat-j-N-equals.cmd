$ qstat -j 138
