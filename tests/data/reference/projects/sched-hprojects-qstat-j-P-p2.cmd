$ qstat -j 132
