$ qstat -qs a
