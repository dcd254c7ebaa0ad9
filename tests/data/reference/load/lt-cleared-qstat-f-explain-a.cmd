$ qstat -f -explain a -q all.q
