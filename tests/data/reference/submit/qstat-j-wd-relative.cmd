$ qstat -j 236
