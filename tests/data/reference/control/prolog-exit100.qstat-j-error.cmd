$ qstat -j 44
