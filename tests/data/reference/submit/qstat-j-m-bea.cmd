$ qstat -j 244
