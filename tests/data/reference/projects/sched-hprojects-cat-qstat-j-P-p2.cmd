$ qstat -j 140
