$ qstat -j 191
