$ qstat -j 303
