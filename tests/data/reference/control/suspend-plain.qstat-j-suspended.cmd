$ qstat -j 51
