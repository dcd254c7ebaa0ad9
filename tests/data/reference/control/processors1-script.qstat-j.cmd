$ qstat -j 77
