$ qstat -j 171
