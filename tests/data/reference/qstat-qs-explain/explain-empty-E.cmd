$ qstat -explain ''
