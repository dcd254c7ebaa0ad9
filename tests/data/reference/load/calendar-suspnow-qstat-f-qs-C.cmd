$ qstat -f -qs C
