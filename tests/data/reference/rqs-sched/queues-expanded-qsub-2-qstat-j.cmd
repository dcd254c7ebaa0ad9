$ qstat -j 162
