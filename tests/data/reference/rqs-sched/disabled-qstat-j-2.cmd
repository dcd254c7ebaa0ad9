$ qstat -j 190
