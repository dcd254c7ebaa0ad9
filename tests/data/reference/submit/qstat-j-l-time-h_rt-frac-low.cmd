$ qstat -j 64
