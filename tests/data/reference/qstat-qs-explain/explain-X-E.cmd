$ qstat -explain X
