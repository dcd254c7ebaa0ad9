$ qstat -explain E -explain a
