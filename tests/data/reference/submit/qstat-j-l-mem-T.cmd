$ qstat -j 40
