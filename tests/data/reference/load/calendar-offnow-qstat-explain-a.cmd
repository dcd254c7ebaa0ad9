$ qstat -f -q cal.q -explain a
