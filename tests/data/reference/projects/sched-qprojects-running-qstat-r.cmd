$ qstat -r -u "*"
