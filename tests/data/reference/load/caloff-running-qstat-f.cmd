$ qstat -f -u "*" -q cal.q
