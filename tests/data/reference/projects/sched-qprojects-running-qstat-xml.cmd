$ qstat -xml -u "*"
