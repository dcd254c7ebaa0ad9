$ qstat -j 152
