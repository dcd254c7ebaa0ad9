$ qstat -j 188
