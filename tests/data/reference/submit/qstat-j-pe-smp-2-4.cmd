$ qstat -j 203
