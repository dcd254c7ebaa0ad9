$ qstat -j 42
