$ qstat -j 114
