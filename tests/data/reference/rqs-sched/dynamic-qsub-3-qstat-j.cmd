$ qstat -j 195
