$ qstat -j 202
