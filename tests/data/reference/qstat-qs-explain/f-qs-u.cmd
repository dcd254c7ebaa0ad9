$ qstat -f -qs u
