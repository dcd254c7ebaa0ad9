$ qstat -j 215
