$ qstat -qs d -qs E
