$ qstat -j 47
