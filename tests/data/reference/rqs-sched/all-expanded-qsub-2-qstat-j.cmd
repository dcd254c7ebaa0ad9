$ qstat -j 173
