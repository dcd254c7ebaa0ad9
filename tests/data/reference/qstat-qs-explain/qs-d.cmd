$ qstat -qs d
