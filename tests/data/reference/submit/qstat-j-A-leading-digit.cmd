$ qstat -j 225
