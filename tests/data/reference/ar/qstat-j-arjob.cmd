sgeuser$ qstat -j 5
