$ qstat -explain aX
