$ qstat -F np_load_avg -q all.q
