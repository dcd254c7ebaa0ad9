$ qstat -explain e
