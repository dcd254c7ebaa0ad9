$ qstat -f -ext -u "*"
