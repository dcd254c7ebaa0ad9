$ qstat -j 175
