$ qstat -explain E
