$ qstat -j 238
