$ qstat -j 86
