$ qstat -explain A
