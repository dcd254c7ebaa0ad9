$ qstat -j 92
