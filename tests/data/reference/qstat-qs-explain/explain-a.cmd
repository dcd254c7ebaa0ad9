$ qstat -explain a
