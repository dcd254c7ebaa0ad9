$ qstat -j 297
