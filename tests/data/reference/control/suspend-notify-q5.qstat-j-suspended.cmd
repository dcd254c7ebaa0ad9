$ qstat -j 52
