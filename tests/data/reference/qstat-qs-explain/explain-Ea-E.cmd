$ qstat -explain Ea
