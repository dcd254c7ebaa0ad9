$ qstat -j 60
