$ qstat -j 246
