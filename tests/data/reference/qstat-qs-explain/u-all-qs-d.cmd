$ qstat -u '*' -qs d
