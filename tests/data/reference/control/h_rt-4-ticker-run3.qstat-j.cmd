$ qstat -j 84
