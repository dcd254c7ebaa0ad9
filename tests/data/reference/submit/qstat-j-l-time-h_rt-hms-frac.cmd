$ qstat -j 65
