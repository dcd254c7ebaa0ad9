$ qstat -j 204
