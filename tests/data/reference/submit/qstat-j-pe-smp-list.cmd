$ qstat -j 205
