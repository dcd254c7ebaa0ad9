$ qstat -ext -u "*"
