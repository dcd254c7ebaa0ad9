$ qstat -explain E -xml
