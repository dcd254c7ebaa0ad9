$ qstat -j 139
