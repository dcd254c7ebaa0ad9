$ qstat -j 61
