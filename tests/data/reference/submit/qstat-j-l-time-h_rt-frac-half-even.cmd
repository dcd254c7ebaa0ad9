$ qstat -j 98
