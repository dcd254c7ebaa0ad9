$ qstat -j 217
