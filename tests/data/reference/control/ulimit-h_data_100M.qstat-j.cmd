$ qstat -j 20
