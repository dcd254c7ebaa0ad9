$ qstat -j 49
