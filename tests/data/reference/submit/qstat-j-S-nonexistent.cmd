$ qstat -j 250
