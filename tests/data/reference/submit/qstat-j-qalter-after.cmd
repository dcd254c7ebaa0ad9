$ qstat -j 263
