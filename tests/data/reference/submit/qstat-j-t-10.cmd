$ qstat -j 196
