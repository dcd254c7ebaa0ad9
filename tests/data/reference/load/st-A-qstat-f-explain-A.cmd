$ qstat -f -explain A -q all.q
