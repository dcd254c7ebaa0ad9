$ qstat -j 9
