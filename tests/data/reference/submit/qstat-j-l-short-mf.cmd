$ qstat -j 79
