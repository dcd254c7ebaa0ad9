qstat -t
