$ qstat -f -F
