$ qstat -j 240
