$ qstat -j 192
