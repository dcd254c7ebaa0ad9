$ qstat -explain E -q all.q
