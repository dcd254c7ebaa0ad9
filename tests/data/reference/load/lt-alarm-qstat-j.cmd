$ qstat -j 220
