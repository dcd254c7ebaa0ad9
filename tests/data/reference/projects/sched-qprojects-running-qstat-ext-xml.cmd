$ qstat -ext -xml -u "*"
