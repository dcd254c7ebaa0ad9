$ qstat -j 148
