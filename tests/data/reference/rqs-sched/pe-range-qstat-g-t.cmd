$ qstat -g t -u '*'
