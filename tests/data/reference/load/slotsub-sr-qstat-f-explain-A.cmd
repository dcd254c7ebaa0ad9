$ qstat -f -q low.q -explain A
