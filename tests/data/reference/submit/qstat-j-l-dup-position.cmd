$ qstat -j 99
