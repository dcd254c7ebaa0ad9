$ qconf -rattr queue load_thresholds scratch_free=100M,sensor_int=10,np_load_avg=1.75 all.q
