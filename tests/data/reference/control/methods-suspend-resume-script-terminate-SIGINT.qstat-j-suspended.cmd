$ qstat -j 56
