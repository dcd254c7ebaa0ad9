$ qstat -f -explain E -q all.q
