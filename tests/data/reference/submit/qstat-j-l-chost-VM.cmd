$ qstat -j 69
