$ qstat -f -explain E
