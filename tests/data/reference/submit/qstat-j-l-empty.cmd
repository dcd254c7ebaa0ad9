$ qstat -j 120
