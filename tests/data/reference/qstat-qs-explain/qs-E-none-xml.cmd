$ qstat -qs E -xml
