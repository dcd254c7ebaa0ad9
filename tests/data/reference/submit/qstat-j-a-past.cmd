$ qstat -j 216
