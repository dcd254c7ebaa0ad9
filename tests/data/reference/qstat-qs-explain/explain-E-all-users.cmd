$ qstat -explain E -u '*'
