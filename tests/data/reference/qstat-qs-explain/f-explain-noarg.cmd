$ qstat -f -explain
