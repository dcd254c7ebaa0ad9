$ qstat -j 247
