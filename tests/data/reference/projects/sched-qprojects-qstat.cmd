$ qstat -u "*"
