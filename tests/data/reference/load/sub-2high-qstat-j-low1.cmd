$ qstat -j 212
