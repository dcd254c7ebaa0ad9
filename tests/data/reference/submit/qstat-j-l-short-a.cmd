$ qstat -j 80
