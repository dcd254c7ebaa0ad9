$ qhost -F scratch_free,sensor_int,global_val
