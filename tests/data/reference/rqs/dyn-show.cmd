$ qconf -srqs dyn_mem,dyn_sum,dyn_str,dyn_unk,dyn_w,dyn_bad
