$ qstat -f -q all.q
