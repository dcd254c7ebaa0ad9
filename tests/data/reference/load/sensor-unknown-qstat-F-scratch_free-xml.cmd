$ qstat -F scratch_free -xml
