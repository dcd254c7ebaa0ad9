$ qstat -qs
