$ qstat -f -u '*' -qs E
