$ qstat -j 91
