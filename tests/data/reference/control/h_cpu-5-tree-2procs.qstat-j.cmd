$ qstat -j 87
