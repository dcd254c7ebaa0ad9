$ qstat -j 142
