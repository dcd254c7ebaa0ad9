$ qstat -j 200
