$ qstat -explain E -r
