$ qstat -j 82
