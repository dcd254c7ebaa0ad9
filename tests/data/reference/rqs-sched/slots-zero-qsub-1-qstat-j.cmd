$ qstat -j 179
