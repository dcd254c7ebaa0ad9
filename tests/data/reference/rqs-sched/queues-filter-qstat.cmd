$ qstat -u '*'
