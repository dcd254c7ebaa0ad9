$ qstat -j 218
