$ qstat -explain
