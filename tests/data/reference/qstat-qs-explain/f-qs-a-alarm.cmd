$ qstat -f -qs a
