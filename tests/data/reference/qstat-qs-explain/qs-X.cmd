$ qstat -qs X
