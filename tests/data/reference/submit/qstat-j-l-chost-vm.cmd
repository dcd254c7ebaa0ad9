$ qstat -j 68
