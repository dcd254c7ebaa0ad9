$ qstat -j 221
