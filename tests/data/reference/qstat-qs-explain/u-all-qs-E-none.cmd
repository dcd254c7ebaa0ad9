$ qstat -u '*' -qs E
