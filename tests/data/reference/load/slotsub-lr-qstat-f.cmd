$ qstat -f -u "*"
