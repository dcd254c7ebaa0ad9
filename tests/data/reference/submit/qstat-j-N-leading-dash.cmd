$ qstat -j 177
