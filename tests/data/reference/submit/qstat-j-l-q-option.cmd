$ qstat -j 88
