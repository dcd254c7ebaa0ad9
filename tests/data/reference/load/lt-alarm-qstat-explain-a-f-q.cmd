$ qstat -explain a -f -q all.q
