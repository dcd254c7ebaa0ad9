$ qstat -f -qs d -q all.q
