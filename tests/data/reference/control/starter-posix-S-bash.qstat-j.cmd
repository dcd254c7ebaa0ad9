$ qstat -j 59
