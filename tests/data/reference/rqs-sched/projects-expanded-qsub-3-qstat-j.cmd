$ qstat -j 169
