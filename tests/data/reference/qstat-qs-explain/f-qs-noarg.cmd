$ qstat -f -qs
