$ qhost -F np_load_avg,load_avg
