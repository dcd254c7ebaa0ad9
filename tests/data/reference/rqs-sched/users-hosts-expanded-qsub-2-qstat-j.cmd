$ qstat -j 158
