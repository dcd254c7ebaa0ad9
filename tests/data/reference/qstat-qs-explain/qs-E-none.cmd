$ qstat -qs E
