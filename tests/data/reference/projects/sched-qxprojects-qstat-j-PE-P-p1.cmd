$ qstat -j 130
