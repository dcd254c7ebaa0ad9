$ qstat -f -u '*'
