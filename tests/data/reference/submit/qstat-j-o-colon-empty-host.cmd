$ qstat -j 234
