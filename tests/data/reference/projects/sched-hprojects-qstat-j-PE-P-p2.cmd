$ qstat -j 137
