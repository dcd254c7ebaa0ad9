$ qstat -j 122
