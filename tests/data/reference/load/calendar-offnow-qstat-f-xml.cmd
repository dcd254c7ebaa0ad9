$ qstat -f -q cal.q -xml
