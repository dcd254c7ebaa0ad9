$ qstat -f -qs E -xml
