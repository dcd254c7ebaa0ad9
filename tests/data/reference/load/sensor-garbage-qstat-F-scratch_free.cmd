$ qstat -F scratch_free
