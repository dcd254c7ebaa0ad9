$ qstat -j 54
