$ qstat -j 154
