$ qstat -j 63
