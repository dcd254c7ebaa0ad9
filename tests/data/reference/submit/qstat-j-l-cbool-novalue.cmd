$ qstat -j 115
