$ qstat -j 8
