$ qstat -f -q cal.q
