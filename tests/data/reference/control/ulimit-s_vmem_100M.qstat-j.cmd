$ qstat -j 16
