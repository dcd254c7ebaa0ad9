$ qstat -j 211
