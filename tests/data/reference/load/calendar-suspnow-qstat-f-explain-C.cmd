$ qstat -f -explain C
