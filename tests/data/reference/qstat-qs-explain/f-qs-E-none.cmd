$ qstat -f -qs E
