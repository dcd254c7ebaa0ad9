$ qstat -j 176
