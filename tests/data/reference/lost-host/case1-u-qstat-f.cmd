qstat -f
