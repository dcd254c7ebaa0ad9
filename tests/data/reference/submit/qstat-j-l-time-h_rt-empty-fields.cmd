$ qstat -j 27
