$ qstat -j 129
