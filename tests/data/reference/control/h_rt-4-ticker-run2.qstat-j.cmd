$ qstat -j 85
