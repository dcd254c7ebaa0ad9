$ qstat -j 145
