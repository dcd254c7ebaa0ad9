$ qstat -j 156
