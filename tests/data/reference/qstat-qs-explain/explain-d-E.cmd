$ qstat -explain d
