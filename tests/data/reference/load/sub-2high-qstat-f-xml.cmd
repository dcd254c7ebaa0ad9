$ qstat -f -u "*" -xml
