$ qstat -u "*" -xml
