$ qstat -j 66
