$ qstat -j 213
