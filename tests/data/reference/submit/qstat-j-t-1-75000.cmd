$ qstat -j 193
