$ qstat -j 198
