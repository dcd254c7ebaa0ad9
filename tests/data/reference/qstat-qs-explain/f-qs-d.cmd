$ qstat -f -qs d
