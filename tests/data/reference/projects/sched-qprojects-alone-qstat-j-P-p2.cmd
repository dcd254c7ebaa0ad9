$ qstat -j 146
