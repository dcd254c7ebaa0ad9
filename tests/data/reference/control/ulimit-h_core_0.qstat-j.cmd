$ qstat -j 22
