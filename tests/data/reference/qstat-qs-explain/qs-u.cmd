$ qstat -qs u
