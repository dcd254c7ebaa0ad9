$ qstat -j 41
