$ qstat -j 237
