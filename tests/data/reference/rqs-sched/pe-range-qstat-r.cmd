$ qstat -r -u '*'
