$ qstat -f -u "*" -q all.q
