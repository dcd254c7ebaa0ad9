$ qstat -j 141
