qstat -t -f
