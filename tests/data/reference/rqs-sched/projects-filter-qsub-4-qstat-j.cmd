$ qstat -j 166
