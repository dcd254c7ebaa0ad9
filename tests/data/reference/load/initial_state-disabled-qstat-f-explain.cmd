$ qstat -f -q init.q -explain d
