$ qstat -f -explain c -q all.q
