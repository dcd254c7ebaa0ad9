$ qstat -j 197
