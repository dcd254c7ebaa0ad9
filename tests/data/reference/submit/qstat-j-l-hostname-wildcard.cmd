$ qstat -j 73
