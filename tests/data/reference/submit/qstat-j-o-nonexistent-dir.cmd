$ qstat -j 231
