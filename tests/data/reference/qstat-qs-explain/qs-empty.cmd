$ qstat -qs ''
