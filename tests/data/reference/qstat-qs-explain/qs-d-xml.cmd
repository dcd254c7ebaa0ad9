$ qstat -qs d -xml
