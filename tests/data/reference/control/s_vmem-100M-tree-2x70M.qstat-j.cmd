$ qstat -j 89
