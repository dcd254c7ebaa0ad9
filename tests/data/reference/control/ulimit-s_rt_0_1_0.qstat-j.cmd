$ qstat -j 24
