$ qstat -j 185
