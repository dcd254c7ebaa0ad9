$ qstat -j 74
