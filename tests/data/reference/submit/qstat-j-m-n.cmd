$ qstat -j 245
