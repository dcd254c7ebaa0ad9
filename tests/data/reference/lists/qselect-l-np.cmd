qselect -l np_load_avg=0.1
