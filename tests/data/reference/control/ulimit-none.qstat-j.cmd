$ qstat -j 26
