qstat -f -s z
