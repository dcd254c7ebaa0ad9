$ qstat -j 147
