$ qstat -j 243
