$ qstat -f -explain E -xml
