$ qstat -j 75
