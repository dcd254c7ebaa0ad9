$ qstat -explain E -qs E
