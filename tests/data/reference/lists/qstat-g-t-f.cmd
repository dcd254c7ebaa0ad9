qstat -g t -f
