$ qstat -j 4
