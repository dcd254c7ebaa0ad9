$ qstat -j 78
