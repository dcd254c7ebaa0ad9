$ qstat -j 128
