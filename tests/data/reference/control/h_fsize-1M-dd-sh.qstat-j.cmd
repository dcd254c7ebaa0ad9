$ qstat -j 34
