$ qstat -f -explain a
