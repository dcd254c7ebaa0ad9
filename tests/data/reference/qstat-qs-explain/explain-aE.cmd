$ qstat -explain aE
