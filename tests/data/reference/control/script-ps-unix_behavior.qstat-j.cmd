$ qstat -j 81
