$ qstat -explain c
