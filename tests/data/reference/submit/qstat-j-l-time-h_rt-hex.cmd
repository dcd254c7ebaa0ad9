$ qstat -j 32
