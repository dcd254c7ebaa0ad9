$ qstat -j 118
