$ qstat -j 33
