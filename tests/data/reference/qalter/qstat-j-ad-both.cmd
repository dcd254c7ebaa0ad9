$ qstat -j 41,42
