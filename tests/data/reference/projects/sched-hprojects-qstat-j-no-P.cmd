$ qstat -j 131
