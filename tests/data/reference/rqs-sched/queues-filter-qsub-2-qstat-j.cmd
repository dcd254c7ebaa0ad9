$ qstat -j 160
