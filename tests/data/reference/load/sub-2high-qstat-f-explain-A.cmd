$ qstat -f -explain A
