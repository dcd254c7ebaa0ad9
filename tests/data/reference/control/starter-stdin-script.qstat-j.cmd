$ qstat -j 62
