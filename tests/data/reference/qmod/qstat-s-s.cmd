$ qstat -s s
