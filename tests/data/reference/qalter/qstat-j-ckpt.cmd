$ qstat -j 36
