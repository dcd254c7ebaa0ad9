$ qstat -j 57
