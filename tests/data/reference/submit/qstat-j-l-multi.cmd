$ qstat -j 90
