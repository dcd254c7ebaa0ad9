$ qstat -j 46
