$ qstat -j 149
