qstat -g t
