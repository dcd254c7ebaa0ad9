$ qstat -j 116
