$ qstat -j 150
