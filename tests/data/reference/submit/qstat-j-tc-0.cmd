$ qstat -j 229
