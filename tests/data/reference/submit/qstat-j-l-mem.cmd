$ qstat -j 3
